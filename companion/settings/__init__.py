"""Settings (config.yaml and the environment) and where requests go."""
