"""Image inputs as the service takes them: uploads, inline and URL images, decoded and
held to the size limits."""
