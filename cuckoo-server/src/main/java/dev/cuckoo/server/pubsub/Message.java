package dev.cuckoo.server.pubsub;

import dev.cuckoo.server.protocol.Reply;

/**
 * One published message as one subscriber receives it: {@code message channel payload} for a
 * channel subscription, {@code pmessage pattern channel payload} for a pattern, {@code smessage
 * channel payload} for a shard channel. Immutable, shared by every receiver; each writes it in its
 * own protocol (a RESP2 array or a RESP3 push frame, as Redis's {@code addReplyPubsubMessage}).
 *
 * @param kind "message", "pmessage" or "smessage"
 * @param pattern the pattern that matched (pmessage), else null
 * @param channel the channel published to
 * @param payload the message
 */
public record Message(String kind, byte[] pattern, byte[] channel, byte[] payload)
    implements Frame {
  /** Writes the frame to a subscriber's reply stream. */
  @Override
  public void writeTo(Reply reply) {
    reply.push(pattern == null ? 3 : 4);
    reply.bulk(kind);
    if (pattern != null) {
      reply.bulk(pattern);
    }
    reply.bulk(channel);
    reply.bulk(payload);
  }
}
