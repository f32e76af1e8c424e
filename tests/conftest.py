import pytest


@pytest.fixture
def ctx():
    """A context with our dialects, entered with an unknown location."""
    from mlir import ir

    from fuser_mlir.dialects import new_context

    context = new_context()
    with context, ir.Location.unknown():
        yield context
