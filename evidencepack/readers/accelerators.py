"""Which accelerator a name means: its family, form factor, memory and partition, from a table.

Two names are the same hardware when they resolve to the same known family, the same form factor
(SXM, PCIe/NVL, OAM, a superchip), the same memory variant and the same partition (a whole
accelerator, a MIG slice such as ``3g.71gb``, a compute partition, a virtual or shared GPU).
A name that states no form factor means the form its vendor's own device name leaves unsaid
(``NVIDIA H200`` is the SXM module; the NVL card says NVL). A name with a memory size the table
does not list for its family is another variant. A name naming no family in the table is held
to the other by its whole name, case and punctuation aside, and the finding says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Variant = tuple[float, ...]
"""The memory sizes (GB) one product ships as (180 and 192 GB are one B200, as vendors quote)."""


@dataclass(frozen=True)
class Family:
    """One accelerator family of the table: its forms and the memory variants of each."""

    vendor: str
    name: str
    pattern: str
    """A regular expression on the lower-cased name that says this family."""
    forms: dict[str, tuple[Variant, ...]]
    """Form factor -> the memory variants it ships with."""
    unstated: str
    """The form a name stating none means (the vendor's device name leaves it unsaid)."""
    pcie: str | None = None
    """The form a name saying "PCIe" means, where the family's PCIe card has its own name."""

    @property
    def label(self) -> str:
        """The family as written in a finding ("NVIDIA H200")."""
        return f"{self.vendor} {self.name}"


def _f(
    vendor: str,
    name: str,
    pattern: str,
    forms: dict[str, tuple[Variant, ...]],
    unstated: str | None = None,
    pcie: str | None = None,
) -> Family:
    return Family(vendor, name, pattern, forms, unstated or next(iter(forms)), pcie)


_B = r"(?<![a-z0-9])"
_E = r"(?![0-9])"
KNOWN: tuple[Family, ...] = (
    # NVIDIA data-centre GPUs: the SXM module is the name without a form (nvidia-smi's
    # "NVIDIA H200", "NVIDIA H100 80GB HBM3"); the PCIe and NVL cards say so.
    _f("NVIDIA", "A100", _B + r"a100" + _E, {"SXM": ((40,), (80,)), "PCIe": ((40,), (80,))}),
    _f("NVIDIA", "H100", _B + r"h100" + _E, {"SXM": ((80,),), "PCIe": ((80,),), "NVL": ((94,),)}),
    _f("NVIDIA", "H200", _B + r"h200" + _E, {"SXM": ((141,),), "NVL": ((141,),)}, pcie="NVL"),
    _f("NVIDIA", "H20", _B + r"h20" + _E, {"SXM": ((96,), (141,))}),
    _f("NVIDIA", "GH200", _B + r"gh200" + _E, {"superchip": ((96,), (144,))}),
    _f("NVIDIA", "B200", _B + r"b200" + _E, {"SXM": ((180, 192),)}),
    _f("NVIDIA", "B300", _B + r"b300" + _E, {"SXM": ((270, 288),)}),
    _f("NVIDIA", "GB200", _B + r"gb200" + _E, {"superchip": ((186, 192),)}),
    _f("NVIDIA", "GB300", _B + r"gb300" + _E, {"superchip": ((279, 288),)}),
    _f("NVIDIA", "GB10", _B + r"gb10" + _E, {"superchip": ((128,),)}),
    _f("NVIDIA", "L4", _B + r"l4(?![0-9a-z])", {"PCIe": ((24,),)}),
    _f("NVIDIA", "L40S", _B + r"l40s", {"PCIe": ((48,),)}),
    _f("NVIDIA", "L40", _B + r"l40(?![0-9s])", {"PCIe": ((48,),)}),
    _f("NVIDIA", "RTX PRO 6000 Blackwell", r"rtx\W*pro\W*6000", {"PCIe": ((96,),)}),
    _f("NVIDIA", "GeForce RTX 4090", r"rtx\W*4090", {"PCIe": ((24,),)}),
    _f("NVIDIA", "Jetson AGX Thor", r"jetson.*thor|agx\W*thor", {"module": ((128,),)}),
    # AMD Instinct: OAM modules.
    _f("AMD", "Instinct MI300X", _B + r"mi300x", {"OAM": ((192,),)}),
    _f("AMD", "Instinct MI300A", _B + r"mi300a", {"APU": ((128,),)}),
    _f("AMD", "Instinct MI308X", _B + r"mi308x", {"OAM": ((192,),)}),
    _f("AMD", "Instinct MI325X", _B + r"mi325x?" + _E, {"OAM": ((256,),)}),
    _f("AMD", "Instinct MI350X", _B + r"mi350x?" + _E, {"OAM": ((288,),)}),
    _f("AMD", "Instinct MI355X", _B + r"mi355x?" + _E, {"OAM": ((288,),)}),
    # Intel Gaudi: OAM modules (HL-225, HL-325L); Gaudi 3's PCIe card is the HL-338.
    _f("Intel", "Gaudi 2", r"gaudi\W*2" + _E + r"|" + _B + r"hl-?225", {"OAM": ((96,),)}),
    _f(
        "Intel",
        "Gaudi 3",
        r"gaudi\W*3" + _E + r"|" + _B + r"hl-?3[23][58]",
        {"OAM": ((128,),), "PCIe": ((128,),)},
        pcie="PCIe",
    ),
    _f("Intel", "Arc Pro B60", r"arc\W*pro\W*b60", {"PCIe": ((24,), (48,))}),
    # Google TPUs and AWS chips: one form each.
    _f("Google", "TPU v4", r"tpu\W*v4" + _E, {"chip": ((32,),)}),
    _f("Google", "TPU v5e", _B + r"v5\W?e(?![a-z])|v5\W*lite", {"chip": ((16,),)}),
    _f("Google", "TPU v5p", _B + r"v5\W?p(?![a-z])", {"chip": ((95,),)}),
    _f("Google", "TPU v6e (Trillium)", _B + r"v6\W?e(?![a-z])|trillium", {"chip": ((32,),)}),
    _f("AWS", "Trainium2", r"trainium\W*2|" + _B + r"trn2", {"chip": ((96,),)}),
    _f("AWS", "Inferentia2", r"inferentia\W*2|" + _B + r"inf2", {"chip": ((32,),)}),
)
"""The accelerators evidencepack knows, with the form factors and memory each ships in."""

_FORM_WORDS = (
    (re.compile(r"sxm\d?|hgx|dgx"), "SXM"),
    (re.compile(_B + r"nvl(?![0-9a-z])"), "NVL"),
    (re.compile(r"pci\W?e|pcie\d"), "PCIe"),
    (re.compile(_B + r"oam(?![a-z])"), "OAM"),
)
_MIG = re.compile(r"(?<![a-z0-9.])(\d+)g\.(\d+)gb?(?![a-z0-9])")
_PARTITIONS = (
    (re.compile(_B + r"mig(?![a-z])"), "a MIG slice"),
    (re.compile(_B + r"(cpx|dpx|qpx|tpx)(?![a-z])"), "a compute partition ({0})"),
    (re.compile(r"vgpu|virtuali[sz]ed|virtual gpu"), "a virtual GPU"),
    (
        re.compile(r"time[\W_]?slic|(?<![a-z])shared(?![a-z])|(?<![a-z])mps(?![a-z])"),
        "a shared GPU",
    ),
    (re.compile(_B + r"\d+/\d+(?:\s*gpu)?(?![0-9])"), "a fraction of a GPU"),
)
_MEMORY = re.compile(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*(?:gb|gib|g)(?![a-z0-9])")


@dataclass(frozen=True)
class Identity:
    """What a name says about its accelerator."""

    text: str
    family: Family | None
    others: tuple[Family, ...]
    """Further families the name names (a system of several kinds)."""
    form: str | None
    form_stated: bool
    memory_gb: float | None
    partition: str | None
    """None for a whole accelerator; else what slice or share it is."""

    @property
    def variant(self) -> Variant | None:
        """The memory variant of its form the stated memory is (None: not stated or unknown)."""
        if self.family is None or self.form is None or self.memory_gb is None:
            return None
        for variant in self.family.forms.get(self.form, ()):
            if any(abs(self.memory_gb - size) <= 0.03 * size for size in variant):
                return variant
        return None

    def describe(self) -> str:
        """The identity in words ("NVIDIA H200 SXM 141 GB, whole")."""
        if self.family is None:
            return repr(self.text)
        if self.others:
            return " + ".join(f.label for f in (self.family, *self.others))
        parts = [self.family.label, self.form or ""]
        if self.memory_gb is not None:
            parts.append(f"{self.memory_gb:g} GB")
        out = " ".join(p for p in parts if p)
        return out + (f", {self.partition}" if self.partition else "")


def identify(name: str) -> Identity:
    """Read an accelerator name against the table of known accelerators."""
    text = " ".join(name.replace("\u202f", " ").split())
    low = text.lower()
    partition = None
    if (mig := _MIG.search(low)) is not None:
        partition = f"a MIG slice ({mig[1]}g.{mig[2]}gb)"
        low_rest = low[: mig.start()] + " " + low[mig.end() :]
    else:
        low_rest = low
        for pattern, what in _PARTITIONS:
            if (found := pattern.search(low)) is not None:
                partition = what.format(found[1] if found.groups() else "")
                break
    hits = sorted(
        ((m.start(), fam) for fam in KNOWN if (m := re.search(fam.pattern, low_rest))),
        key=lambda hit: hit[0],
    )
    families = [fam for _, fam in hits]
    family = families[0] if families else None
    memory_match = _MEMORY.search(low_rest)
    memory = float(memory_match[1]) if memory_match else None
    form, stated = None, False
    if family is not None:
        for pattern, word in _FORM_WORDS:
            if pattern.search(low_rest):
                if word == "PCIe" and family.pcie is not None:
                    word = family.pcie
                if word in family.forms:
                    form, stated = word, True
                    break
                if len(family.forms) == 1:
                    break  # "NVL72" of a GB200, "DGX" of a superchip: the family's one form
                form, stated = word, True
                break
        if form is None:
            form = _form_by_memory(family, memory) or family.unstated
    return Identity(text, family, tuple(families[1:]), form, stated, memory, partition)


def _form_by_memory(family: Family, memory: float | None) -> str | None:
    """The one form whose memory variants include ``memory`` (H100 with 94 GB is the NVL)."""
    if memory is None:
        return None
    forms = [
        form
        for form, variants in family.forms.items()
        if any(abs(memory - size) <= 0.03 * size for v in variants for size in v)
    ]
    return forms[0] if len(forms) == 1 else None


def _plain(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def difference(value: str, wanted: str) -> str | None:
    """Why the accelerator ``value`` names is not the one ``wanted`` names, or None when they
    are the same hardware (see the module's rules)."""
    got, want = identify(value), identify(wanted)
    if got.family is None or want.family is None:
        if _plain(value) == _plain(wanted):
            return None
        unknown = [repr(i.text) for i in (got, want) if i.family is None]
        return (
            f"{' and '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not in the table "
            "of known accelerators: held to each other by the whole name, which differs"
        )
    if got.others or want.others:
        if {got.family, *got.others} == {want.family, *want.others}:
            return None
        return f"{got.describe()} is not {want.describe()}"
    if got.family != want.family:
        return f"{got.family.label} is not {want.family.label}"
    label = got.family.label
    if got.form != want.form:
        unsaid = [
            f"{i.text!r} states no form factor: read as {i.form}, the form {i.family.vendor}'s "
            "device name leaves unsaid"
            for i in (got, want)
            if not i.form_stated and i.family is not None
        ]
        return f"{label} {got.form} is not {label} {want.form}" + (
            f" ({'; '.join(unsaid)})" if unsaid else ""
        )
    variants = got.family.forms.get(got.form or "", ())
    if got.memory_gb is not None and got.variant is None:
        return f"{label} {got.form} ships with {_sizes(variants)}, not {got.memory_gb:g} GB"
    if want.memory_gb is not None and want.variant is None:
        return f"{label} {want.form} ships with {_sizes(variants)}, not {want.memory_gb:g} GB"
    if got.variant != want.variant and len(variants) > 1:
        if got.variant is None or want.variant is None:
            return (
                f"{label} {got.form} ships with {_sizes(variants)}: "
                f"{(got if got.variant is None else want).text!r} does not say which"
            )
        return f"{label} {got.form} {got.memory_gb:g} GB is not the {want.memory_gb:g} GB one"
    if got.partition != want.partition:
        return (
            f"{got.partition or 'a whole accelerator'} is not "
            f"{want.partition or 'a whole accelerator'} ({label})"
        )
    return None


def _sizes(variants: tuple[Variant, ...]) -> str:
    return " or ".join("/".join(f"{s:g}" for s in v) + " GB" for v in variants)


def note(value: str) -> str | None:
    """What a reader should know about how ``value`` was compared, when it is not plainly a
    known accelerator (a name not in the table)."""
    found = identify(value)
    if found.family is None:
        return (
            f"accelerator {value!r} is not in the table of known accelerators: it is the "
            "candidate's only where the whole name is the same (case and punctuation aside)"
        )
    return None
