"""Controllers: the EndpointSlice controller and the node lifecycle controller."""
