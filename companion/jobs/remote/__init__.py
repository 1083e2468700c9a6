"""A job at the service: the create as the spec says, what is bought, the books as the
service keeps them, the live models, and pay once per generation."""
