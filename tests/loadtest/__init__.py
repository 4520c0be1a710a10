"""Simulated learners (loadtest/) against a real server."""
