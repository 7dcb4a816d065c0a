"""What the Ray tests share: a real three-node cluster on this machine."""

import pytest
from ray.cluster_utils import Cluster


@pytest.fixture(scope="module")
def cluster():
    """Three nodes of one CPU each: a head and two workers (one per test
    module, so a module may remove a node in its last test)."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(2):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    c.shutdown()
