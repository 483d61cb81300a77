"""Reports a budget office can file: a fleet plan as CSV, XLSX (:mod:`app.reports.tables`)
and a printable HTML page (:mod:`app.reports.html`). Pure presentation: a computed
:class:`app.models.plan.PlanResult` in, bytes out; no web or database imports."""
