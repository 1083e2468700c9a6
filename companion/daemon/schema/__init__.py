"""The localhost API as models: request bodies and answers, the fields and limits they
share, and the OpenAPI document made from them."""
