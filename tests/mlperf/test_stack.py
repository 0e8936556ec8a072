"""Free-text software stacks parsed into components, on strings from real system files."""

from __future__ import annotations

import pytest

from evidencepack.mlperf.stack import normalise_space, parse_stack


def parts(framework: object, other: object = None) -> list[tuple[str, str, str | None]]:
    stack = parse_stack({"framework": framework, "other_software_stack": other})
    return [(c.kind, c.name, c.version) for c in stack.components]


def test_amd_vllm_pytorch_rocm() -> None:
    # AMD v5.1 MI300X: framework and other_software_stack as written
    assert parts(
        "vLLM 0.9.0.2.dev108+g71faa1880.d20250730.rocm641, Pytorch 2.7.0+gitf717b2a, "
        "ROCm 6.4.1.60401-83~22.04",
        "hipblaslt 0.15.0-aa0bda7b, flash-attn 2.7.2",
    ) == [
        ("runtime", "vLLM", "0.9.0.2.dev108+g71faa1880.d20250730.rocm641"),
        ("runtime", "PyTorch", "2.7.0+gitf717b2a"),
        ("platform", "ROCm", "6.4.1.60401-83~22.04"),
        ("library", "hipBLASLt", "0.15.0-aa0bda7b"),
        ("library", "flash-attn", "2.7.2"),
    ]


def test_nvidia_tensorrt_cuda_and_repeated_components() -> None:
    assert parts(
        "TensorRT 10.11, CUDA 12.9", "TensorRT 10.11, CUDA 12.9, cuDNN 9.10, Driver 570.148"
    ) == [
        ("runtime", "TensorRT", "10.11"),
        ("platform", "CUDA", "12.9"),
        ("library", "cuDNN", "9.10"),
        ("driver", "Driver", "570.148"),
    ]


def test_tensorrt_llm_is_not_tensorrt() -> None:
    assert parts("TensorRT-LLM 0.17.0, TensorRT 10.8") == [
        ("runtime", "TensorRT-LLM", "0.17.0"),
        ("runtime", "TensorRT", "10.8"),
    ]
    assert parts("Cuda 13.0, NVIDIA TensorRT Edge LLM") == [
        ("platform", "CUDA", "13.0"),
        ("runtime", "TensorRT Edge-LLM", None),
    ]


def test_krai_sglang_docker_image_and_versions_with_v() -> None:
    assert parts(
        "SGLang v0.4.9",
        "lmsysorg/sglang:v0.4.9.post2-cu126, rootless Docker v27.4.1, CUDA 12.8, Driver 570.86.15",
    ) == [
        ("runtime", "SGLang", "0.4.9"),
        ("platform", "CUDA", "12.8"),
        ("driver", "Driver", "570.86.15"),
    ]


def test_dict_stack_and_later_versions_fill_in() -> None:
    # Google v4.0: the framework names Saxml without a version; the dict gives it
    stack = parse_stack(
        {
            "framework": "Saxml",
            "other_software_stack": {
                "JAX TPU runtime": "saxml==1.1.0, praxis==1.2.0, jax==0.4.18",
                "libtpu": "libtpu_nightly==0.1.dev20231006",
            },
        }
    )
    assert [(c.name, c.version) for c in stack.components] == [
        ("Saxml", "1.1.0"),
        ("JAX", "0.4.18"),
        ("libtpu", "0.1.dev20231006"),
    ]
    assert stack.runtime is not None
    assert stack.runtime.name == "Saxml"
    assert "JAX TPU runtime: saxml==1.1.0" in stack.raw


def test_rocm_version_stops_at_an_underscore() -> None:
    assert ("platform", "ROCm", "6.4.1") in parts(
        "vLLM v0.9.1", "rocm6.4.1_vllm_0.9.1_20250715 (0.9.2.dev364+gb432b7a28.rocm641)"
    )


@pytest.mark.parametrize("text", ["", None, "5.15-151-generic", "Linux Kernel 6.5.0-44-generic"])
def test_unrecognised_text_gives_no_components_but_keeps_raw(text: str | None) -> None:
    stack = parse_stack({"framework": None, "other_software_stack": text})
    assert stack.components == ()
    assert stack.raw == (f"other_software_stack: {text}" if text else "")


def test_precision_hint_and_space_normalisation() -> None:
    stack = parse_stack({"framework": "vLLM 0.10.0 FP8\u202fweights", "other_software_stack": ""})
    assert stack.precision_hint == "fp8"
    assert normalise_space("  Intel\u202fXeon\u00a06448Y  ") == "Intel Xeon 6448Y"
