"""Pod Lifecycle Playground: a web playground that shows a Kubernetes Pod's lifecycle."""
