package dev.cuckoo.server.pubsub;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;

/**
 * The server's subscriptions: for each channel, pattern and shard channel, the connections
 * subscribed to it (Redis's {@code server.pubsub_channels}, {@code pubsub_patterns}, {@code
 * pubsubshard_channels}). Safe for use by every network thread; a connection changes only its own
 * entries, from its own thread.
 */
public final class PubSub {
  private final BiPredicate<byte[], byte[]> globMatcher;
  private final Map<ChannelName, Set<Subscriber>> channels = new ConcurrentHashMap<>();
  private final Map<ChannelName, Set<Subscriber>> patterns = new ConcurrentHashMap<>();
  private final Map<ChannelName, Set<Subscriber>> shardChannels = new ConcurrentHashMap<>();
  private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();

  /**
   * Creates an empty registry.
   *
   * @param globMatcher tells whether a pattern (first argument) matches a channel name, as Redis's
   *     {@code stringmatchlen}
   */
  public PubSub(BiPredicate<byte[], byte[]> globMatcher) {
    this.globMatcher = globMatcher;
  }

  private Map<ChannelName, Set<Subscriber>> registry(Kind kind) {
    return switch (kind) {
      case CHANNEL -> channels;
      case PATTERN -> patterns;
      case SHARD -> shardChannels;
    };
  }

  /**
   * Subscribes a connection to a channel, pattern or shard channel; returns false (and changes
   * nothing) if it was subscribed already.
   */
  public boolean subscribe(Subscriber subscriber, Kind kind, byte[] name) {
    ChannelName key = new ChannelName(name);
    if (!subscriber.names(kind).add(key)) {
      return false;
    }
    registry(kind)
        .compute(
            key,
            (k, set) -> {
              Set<Subscriber> members = set != null ? set : ConcurrentHashMap.newKeySet();
              members.add(subscriber);
              return members;
            });
    subscribers.add(subscriber);
    return true;
  }

  /** Unsubscribes a connection from one name; returns false if it was not subscribed to it. */
  public boolean unsubscribe(Subscriber subscriber, Kind kind, byte[] name) {
    ChannelName key = new ChannelName(name);
    if (!subscriber.names(kind).remove(key)) {
      return false;
    }
    registry(kind)
        .computeIfPresent(
            key,
            (k, set) -> {
              set.remove(subscriber);
              return set.isEmpty() ? null : set;
            });
    if (!subscriber.subscribed()) {
      subscribers.remove(subscriber);
    }
    return true;
  }

  /**
   * Unsubscribes a connection from every name of a kind and returns the names it left, in
   * subscription order.
   */
  public List<byte[]> unsubscribeAll(Subscriber subscriber, Kind kind) {
    List<byte[]> left = subscriber.subscribed(kind);
    for (byte[] name : left) {
      unsubscribe(subscriber, kind, name);
    }
    return left;
  }

  /** Ends every subscription of a connection (it closed, or RESET), without confirmations. */
  public void leave(Subscriber subscriber) {
    for (Kind kind : Kind.values()) {
      unsubscribeAll(subscriber, kind);
    }
    subscribers.remove(subscriber);
  }

  /**
   * Publishes a message: to the connections subscribed to the channel, then (unless it is a shard
   * channel) to those whose patterns match it, each pattern match counting as one receiver as in
   * Redis. Returns the number of receivers.
   */
  public int publish(byte[] channel, byte[] payload, boolean shard) {
    int receivers = 0;
    Kind kind = shard ? Kind.SHARD : Kind.CHANNEL;
    Set<Subscriber> direct = registry(kind).get(new ChannelName(channel));
    if (direct != null) {
      Message message = new Message(kind.messageWord(), null, channel, payload);
      for (Subscriber subscriber : direct) {
        subscriber.outbox().deliver(message);
        receivers++;
      }
    }
    if (shard) {
      return receivers;
    }
    for (Map.Entry<ChannelName, Set<Subscriber>> pattern : patterns.entrySet()) {
      byte[] glob = pattern.getKey().bytes();
      if (!globMatcher.test(glob, channel)) {
        continue;
      }
      Message message = new Message(Kind.PATTERN.messageWord(), glob, channel, payload);
      for (Subscriber subscriber : pattern.getValue()) {
        subscriber.outbox().deliver(message);
        receivers++;
      }
    }
    return receivers;
  }

  /**
   * Returns the channels (or shard channels) that have subscribers, those matching {@code pattern}
   * if it is not null (PUBSUB CHANNELS, SHARDCHANNELS).
   */
  public List<byte[]> activeChannels(Kind kind, byte[] pattern) {
    List<byte[]> names = new ArrayList<>();
    for (ChannelName name : registry(kind).keySet()) {
      if (pattern == null || globMatcher.test(pattern, name.bytes())) {
        names.add(name.bytes());
      }
    }
    return names;
  }

  /** Returns the connections subscribed to a channel or shard channel (PUBSUB NUMSUB). */
  public int subscriberCount(Kind kind, byte[] channel) {
    Set<Subscriber> members = registry(kind).get(new ChannelName(channel));
    return members == null ? 0 : members.size();
  }

  /**
   * Returns the number of channels, patterns or shard channels with subscribers (INFO {@code
   * pubsub_channels}, {@code pubsub_patterns}, {@code pubsubshard_channels}; PUBSUB NUMPAT).
   */
  public int activeCount(Kind kind) {
    return registry(kind).size();
  }

  /** Returns true if the connection has any subscription; safe from any thread. */
  public boolean isSubscribed(Subscriber subscriber) {
    return subscribers.contains(subscriber);
  }

  /** Returns the number of connections with any subscription (INFO pubsub_clients). */
  public int clientCount() {
    return subscribers.size();
  }
}
