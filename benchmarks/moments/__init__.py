"""The moment benchmark: its recordings as data (`recordings/*.json`, read by `corpus`) and their
renderer and golden sets (`build`)."""
