import pytest


@pytest.fixture
def ctx():
    """A context with our dialects, entered with an unknown location."""
    from mlir import ir

    from fuser_mlir.dialects import new_context

    context = new_context()
    with context, ir.Location.unknown():
        yield context


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """An empty artifact cache of the test's own (disk and memory), online; yields its folder."""
    from fuser_mlir.runtime import artifact as artifacts

    monkeypatch.setenv("FUSER_MLIR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("FUSER_MLIR_OFFLINE", raising=False)
    artifacts._memory.clear()
    yield tmp_path / "cache"
    artifacts._memory.clear()
