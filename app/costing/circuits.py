"""The socket circuits a desktop's wall power is held to, by country (sourced defaults of the
registry, :mod:`app.costing.defaults`, which lists them): :func:`app.costing.offers.
household_circuit` picks one."""

from __future__ import annotations

import datetime as dt

from app.costing.sourced import Default

NEC_210 = "US National Electrical Code (NFPA 70, 2023 edition) 210.19(A)(1) and 210.20(A)"

HOUSEHOLD_CIRCUIT = Default(
    "household_circuit_continuous_w",
    0.8 * 15 * 120,
    "W",
    "a continuous load may use 80 % of a 15 A, 120 V household branch circuit",
    NEC_210,
    dt.date(2023, 1, 1),  # dated by its edition year
)

IEC_CIRCUIT = Default(
    "socket_circuit_230v_w",
    230.0 * 16,
    "W",
    "a 16 A socket circuit at 230 V, the nominal low voltage of Europe and most of the world "
    "outside North America (the rating of the CEE 7/3 and 7/4 sockets)",
    "IEC 60038:2009 (230 V nominal) and IEC/TR 60083:2015 (CEE 7/3, 7/4: 16 A)",
    dt.date(2015, 1, 1),  # dated by IEC/TR 60083's edition
)

BS_1363_CIRCUIT = Default(
    "socket_circuit_uk_w",
    230.0 * 13,
    "W",
    "a 13 A fused plug at 230 V, the largest load one UK or Irish socket takes",
    "BS 1363-1:2016 (13 A fused plugs) and IEC 60038:2009 (230 V nominal)",
    dt.date(2016, 1, 1),  # dated by BS 1363-1's edition
)
