import torch

from core.device import choose_device, pick_device


def test_auto_picks_an_available_device():
    assert pick_device("auto").type in {"cpu", "cuda", "mps"}


def test_cpu_is_always_granted():
    choice = choose_device("cpu")
    assert choice.device == torch.device("cpu") and choice.warning is None


def test_environment_variable_is_read(monkeypatch):
    monkeypatch.setenv("EMBLAB_DEVICE", "cpu")
    assert choose_device().requested == "cpu"


def test_missing_device_falls_back_to_cpu_with_a_warning(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    choice = choose_device("cuda")
    assert choice.device == torch.device("cpu")
    assert "cuda" in str(choice.warning)


def test_unknown_name_falls_back_to_cpu_with_a_warning():
    choice = choose_device("tpu")
    assert choice.device == torch.device("cpu") and "tpu" in str(choice.warning)
