"""The remote interface of the Animation Generation Service: schema, operations, OpenAPI."""
