Frozen: 2026-11-24T00:32:24Z
Part b of the independent evidence-graph set (issue 23): sentences.b.yaml (95 sentences, ids b001-b095).
I wrote this part without reading the implementation (engine/, engine/kg/markers.py, api/, bridges/, benchmarks/, notes/, existing tests or KG sets). Not tuned on anything. Do not edit.
Another writer may write sentences.yaml / FROZEN in this folder on the same brief; the parts are independent of each other.

sha256:
a5db162927fbb6929fc2aa7284d49b02ed383bdf964391e8daf6a2efaf6a8ffb  sentences.b.yaml
