package dev.cuckoo.server.config;

/**
 * The value of {@code client-output-buffer-limit}: one {@link OutputBufferLimit} per class of
 * client, as Redis's {@code server.client_obuf_limits[]}. A connection's class is Redis's {@code
 * getClientType}: a replica's link is {@code replica}, a connection with a subscription is {@code
 * pubsub}, every other one (a MONITOR and the link to this server's master included) is {@code
 * normal}.
 *
 * @param normal the limit of normal clients (Redis's default: none)
 * @param replica the limit of replicas' links (Redis's default: 256mb 64mb 60)
 * @param pubsub the limit of subscribed clients (Redis's default: 32mb 8mb 60)
 */
public record OutputBufferLimits(
    OutputBufferLimit normal, OutputBufferLimit replica, OutputBufferLimit pubsub) {
  /** Redis's defaults: {@code normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60}. */
  public static final OutputBufferLimits DEFAULT =
      new OutputBufferLimits(
          OutputBufferLimit.NORMAL_DEFAULT,
          OutputBufferLimit.REPLICA_DEFAULT,
          OutputBufferLimit.PUBSUB_DEFAULT);

  /** Returns these limits with the pubsub class replaced. */
  public OutputBufferLimits withPubsub(OutputBufferLimit limit) {
    return new OutputBufferLimits(normal, replica, limit);
  }
}
