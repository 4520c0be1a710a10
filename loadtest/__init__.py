"""Simulated learners: Streamlit's websocket protocol without a browser (protocol.py) and Locust users."""
