package dev.cuckoo.server.cluster;

/**
 * One bus connection to or from another node, as the cluster state sees it: it sends messages and
 * closes. The bus implements it over a Netty channel.
 */
public interface Link {
  /** Queues a message on this link (never blocks). */
  void send(ClusterMessage message);

  /** Closes the link; the bus then reports it closed to the cluster state. */
  void close();

  /** Returns whether the other node opened this link (it pings us on it). */
  boolean inbound();

  /** Returns when the link was created (milliseconds since the epoch). */
  long createdMillis();

  /** Returns the node this link belongs to, or null (an inbound link before its first PING). */
  ClusterNode node();

  /** Sets the node this link belongs to. */
  void node(ClusterNode node);

  /** Returns this end's local address as text ("" if unknown). */
  String localIp();

  /** Returns the other end's address as text ("" if unknown). */
  String remoteIp();

  /** Returns the messages queued and not yet written, in bytes (CLUSTER LINKS). */
  long pendingBytes();
}
