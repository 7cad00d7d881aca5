"""Helpers shared by the tests of the simulated systems."""


def with_control(model, **gains):
    """``model`` with ``control.<name>`` replaced for every keyword."""
    return model.replace(**{f"control.{k}": v for k, v in gains.items()})
