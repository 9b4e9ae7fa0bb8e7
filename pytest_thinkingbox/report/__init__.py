"""Human-readable views of results: the terminal summary (more to come)."""
