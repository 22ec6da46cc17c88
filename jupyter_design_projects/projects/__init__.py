"""The Projects pipeline: five methods bound to the attached Project, on two transports."""
