"""The sample's OSCAL export read by compliance-trestle's own OSCAL models, when installed.

compliance-trestle is an optional test extra (``pip install -e '.[trestle]'``), not part of the
dev extras CI installs: it pins jinja2, paramiko and more. Without it these tests are skipped
and say so. Each trestle release implements one OSCAL line: 3.x the 1.1 models (it reads the
1.1.2 export as it is), 5.x the 1.2 models up to 1.2.1 and refuses any other declared version;
as 1.2.2 and 1.2.3 changed no model (NIST's release notes: datatype fixes and build changes),
the 1.2.3 export is read with its declared version set to trestle's own, and the test says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evidencepack.export.oscal import CATALOG_NAME, RESULTS_NAME, export_oscal
from evidencepack.export.versions import OSCAL_VERSIONS

trestle_oscal = pytest.importorskip(
    "trestle.oscal",
    reason="compliance-trestle is not installed (an optional test extra: "
    "pip install -e '.[trestle]'; CI does not install it)",
)

# slow: compliance-trestle's models take seconds to import and validate
pytestmark = pytest.mark.slow


def _version() -> tuple[str, str]:
    """The export version of trestle's OSCAL line, and the version to declare to trestle."""
    ours = [v for v in OSCAL_VERSIONS if v.rsplit(".", 1)[0] == trestle_oscal.OSCAL_VERSION[:3]]
    if not ours:
        pytest.skip(f"trestle implements OSCAL {trestle_oscal.OSCAL_VERSION}, no line we export")
    (version,) = ours
    accepted = re.match(trestle_oscal.OSCAL_VERSION_REGEX, version)
    return version, version if accepted else trestle_oscal.OSCAL_VERSION


@pytest.fixture(scope="module")
def documents(
    sample_pack: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], dict[str, Any]]:
    version, declared = _version()
    out = tmp_path_factory.mktemp("trestle")
    export_oscal(sample_pack, out, version)
    results = json.loads((out / RESULTS_NAME).read_text(encoding="utf-8"))
    catalog = json.loads((out / CATALOG_NAME).read_text(encoding="utf-8"))
    for document in (results["assessment-results"], catalog["catalog"]):
        document["metadata"]["oscal-version"] = declared
    return results, catalog


def test_trestle_reads_the_assessment_results_and_the_catalog(
    documents: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    from trestle.oscal.assessment_results import AssessmentResults
    from trestle.oscal.catalog import Catalog

    results, catalog = documents
    parsed = AssessmentResults.parse_obj(results["assessment-results"])
    checks = len(results["assessment-results"]["results"][0]["findings"])
    assert len(parsed.results[0].findings) == len(parsed.results[0].observations) == checks
    assert len(Catalog.parse_obj(catalog["catalog"]).controls) == len(
        catalog["catalog"]["controls"]
    )


def test_trestle_refuses_a_broken_copy(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Not vacuous: trestle's models reject a status OSCAL does not allow and an unknown key."""
    import pydantic
    import pydantic.v1
    from trestle.oscal.assessment_results import AssessmentResults

    results = json.loads(json.dumps(documents[0]))["assessment-results"]
    results["results"][0]["findings"][0]["target"]["status"]["state"] = "passed"
    results["results"][0]["observations"][0]["bogus"] = True
    # trestle 3.x builds its models on pydantic.v1, later releases may not: either error counts.
    with pytest.raises((pydantic.ValidationError, pydantic.v1.ValidationError)) as caught:
        AssessmentResults.parse_obj(results)
    assert "state" in str(caught.value)
    assert "bogus" in str(caught.value)
