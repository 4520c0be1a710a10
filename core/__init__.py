"""Computation for the Transformer Embedding Lab: torch on the chosen device, no streamlit."""
