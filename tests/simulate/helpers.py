"""Helpers shared by the PID-control tests (issue 5)."""


def with_control(model, **gains):
    """``model`` with ``control.<name>`` replaced for every keyword."""
    return model.replace(**{f"control.{k}": v for k, v in gains.items()})
