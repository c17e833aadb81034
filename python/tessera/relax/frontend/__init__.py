"""tessera.relax.frontend: TVM's relax.frontend (``relax.frontend.torch.from_fx``)."""
