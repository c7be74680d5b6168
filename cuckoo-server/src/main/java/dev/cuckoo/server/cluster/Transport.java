package dev.cuckoo.server.cluster;

/** How the cluster state opens links: the bus connects to a node's bus port. */
public interface Transport {
  /**
   * Starts connecting to {@code node}'s address and bus port and returns the link at once; the bus
   * calls {@link ClusterState#linkConnected} once it connects, {@link ClusterState#linkClosed} if
   * it fails or closes.
   */
  Link connect(ClusterNode node);
}
