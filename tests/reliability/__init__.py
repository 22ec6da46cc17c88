"""The reliability battery: every pipeline under crashes, load, hostile servers and races."""
