"""The OSCAL releases an export can declare and the files it writes (imports nothing: the CLI's
parser reads them).

1.1.2 is what ServiceNow's GRC import takes; 1.2.3 is the current release. The parts of the
assessment-results and catalog models an export uses are the same in both.
"""

OSCAL_VERSIONS = ("1.1.2", "1.2.3")
DEFAULT_OSCAL_VERSION = "1.2.3"
RESULTS_NAME = "assessment-results.json"
CATALOG_NAME = "checks-catalog.json"
