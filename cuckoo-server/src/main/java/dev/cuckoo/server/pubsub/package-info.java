/**
 * Publish/subscribe: the server-wide registry of channel and pattern subscriptions, the
 * subscriptions of one connection, and the frames a subscriber receives (RESP2 arrays, RESP3 push
 * frames), as Redis's {@code pubsub.c}. Depends only on {@code protocol}; delivery to a connection
 * goes through the {@link dev.cuckoo.server.pubsub.Subscriber.Outbox} its network layer provides.
 */
package dev.cuckoo.server.pubsub;
