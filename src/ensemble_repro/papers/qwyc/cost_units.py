"""What the cost estimate needs of the QWYC jobs beside their cost functions (:mod:`.cost`):
the kernel family of each unit cost and the modules a job starts with."""

#: Unit cost -> its machine-calibration family.
UNIT_FAMILIES = {"qwyc_gbt": "gbt", "qwyc_sweep": "numeric", "qwyc_timing": "numeric"}
#: What a job imports before its work.
START_MODULES = (f"{__package__}.cells",)
