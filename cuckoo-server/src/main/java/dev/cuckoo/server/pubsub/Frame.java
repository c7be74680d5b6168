package dev.cuckoo.server.pubsub;

import dev.cuckoo.server.protocol.Reply;

/**
 * Something the server sends a connection on its own, outside the replies to its requests: a
 * published {@link Message}, or a line of MONITOR's feed. Immutable, shared by every receiver.
 */
public interface Frame {
  /** Writes the frame to a connection's reply stream, in the connection's protocol. */
  void writeTo(Reply reply);
}
