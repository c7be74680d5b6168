package dev.cuckoo.server.cluster;

import java.util.ArrayList;
import java.util.List;

/** A cluster link for tests of the state's rules: it keeps what is sent on it. */
final class RecordingLink implements Link {
  /** A creation time that is never old enough for the link to be dropped for unanswered pings. */
  static final long NEVER_OLD = Long.MAX_VALUE / 2;

  final List<ClusterMessage> sent = new ArrayList<>();
  private final boolean inbound;
  private final long createdMillis;
  ClusterNode node;
  boolean closed;

  /**
   * @param node the node at the other end (null: not known yet)
   * @param inbound whether the other node opened it
   * @param createdMillis when it was opened, by the state's clock
   */
  RecordingLink(ClusterNode node, boolean inbound, long createdMillis) {
    this.node = node;
    this.inbound = inbound;
    this.createdMillis = createdMillis;
  }

  /** Returns how many messages of the type were sent on it. */
  long count(int type) {
    return sent.stream().filter(m -> m.type == type).count();
  }

  @Override
  public void send(ClusterMessage message) {
    sent.add(message);
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public boolean inbound() {
    return inbound;
  }

  @Override
  public long createdMillis() {
    return createdMillis;
  }

  @Override
  public ClusterNode node() {
    return node;
  }

  @Override
  public void node(ClusterNode node) {
    this.node = node;
  }

  @Override
  public String localIp() {
    return "127.0.0.1";
  }

  @Override
  public String remoteIp() {
    return "127.0.0.1";
  }

  @Override
  public long pendingBytes() {
    return 0;
  }
}
