"""The API server side: defaulting and admission of what is created."""
