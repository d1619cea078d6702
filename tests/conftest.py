"""The whole suite's Hypothesis settings: a property test never fails for being slow.

Hypothesis's defaults fail an example that takes over 200 ms (`deadline`) and a test whose data takes long to
generate (the `too_slow` health check): on a busy machine both happen to correct code. Tests that set their
own `settings` inherit these for what they leave out.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("asteroid-mining", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("asteroid-mining")
