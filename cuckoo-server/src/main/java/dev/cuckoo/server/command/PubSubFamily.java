package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.PATTERN;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.protocol.Args;
import dev.cuckoo.server.protocol.Reply;
import dev.cuckoo.server.pubsub.Kind;
import dev.cuckoo.server.pubsub.PubSub;
import dev.cuckoo.server.pubsub.Subscriber;
import dev.cuckoo.server.session.Session;
import java.util.List;

/**
 * The pub/sub commands: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB. Flags,
 * categories and key specs as Redis 8 reports them; docs from Redis's command JSON.
 *
 * <p>The handlers answer as Redis's {@code pubsub.c}: every (un)subscription is confirmed by its
 * own frame (a RESP2 array or a RESP3 push) carrying the connection's subscription count after it.
 */
final class PubSubFamily {
  private final PubSub pubSub;

  /**
   * Creates the commands over the server's subscription registry; the dispatcher sends the messages
   * published to the replicas.
   */
  PubSubFamily(PubSub pubSub) {
    this.pubSub = pubSub;
  }

  private static void confirm(Session session, String word, byte[] name, int count) {
    Reply reply = session.reply();
    reply.push(3);
    reply.bulk(word);
    if (name == null) {
      reply.nullValue();
    } else {
      reply.bulk(name);
    }
    reply.integer(count);
  }

  /** (P|S)SUBSCRIBE name [name ...]: the kind's subscription to each name, confirmed. */
  void subscribe(Session session, byte[][] args, Kind kind) {
    Subscriber subscriber = session.subscriber();
    for (int i = 1; i < args.length; i++) {
      pubSub.subscribe(subscriber, kind, args[i]);
      confirm(session, kind.subscribeWord(), args[i], subscriber.confirmationCount(kind));
    }
  }

  /**
   * (P|S)UNSUBSCRIBE [name ...]: leaves the names given, or every name of the kind when none is
   * given; a connection with none gets one confirmation with a null name, as Redis's {@code
   * pubsubUnsubscribeAllChannels}.
   */
  void unsubscribe(Session session, byte[][] args, Kind kind) {
    Subscriber subscriber = session.subscriber();
    if (args.length == 1) {
      List<byte[]> left = subscriber.subscribed(kind);
      if (left.isEmpty()) {
        confirm(session, kind.unsubscribeWord(), null, subscriber.confirmationCount(kind));
      }
      for (byte[] name : left) {
        pubSub.unsubscribe(subscriber, kind, name);
        confirm(session, kind.unsubscribeWord(), name, subscriber.confirmationCount(kind));
      }
      return;
    }
    for (int i = 1; i < args.length; i++) {
      pubSub.unsubscribe(subscriber, kind, args[i]);
      confirm(session, kind.unsubscribeWord(), args[i], subscriber.confirmationCount(kind));
    }
  }

  /**
   * PUBLISH channel message: the number of receivers (channel and pattern subscriptions). The
   * dispatcher sends the message to the replicas (the entry is {@code propagated}).
   */
  void publish(Session session, Request request) {
    byte[][] args = request.args();
    session.reply().integer(pubSub.publish(args[1], args[2], false));
  }

  /**
   * SPUBLISH shardchannel message: the number of shard-channel subscribers that received it; sent
   * to the replicas by the dispatcher, as PUBLISH.
   */
  void spublish(Session session, Request request) {
    byte[][] args = request.args();
    session.reply().integer(pubSub.publish(args[1], args[2], true));
  }

  private static void syntaxError(Session session, byte[][] args) {

    session
        .reply()
        .error(
            "ERR unknown subcommand or wrong number of arguments for '"
                + Args.text(args[1])
                + "'. Try PUBSUB HELP.");
  }

  /** PUBSUB CHANNELS [pattern] and PUBSUB SHARDCHANNELS [pattern]. */
  void channels(Session session, Request request) {
    byte[][] args = request.args();
    if (args.length > 3) {
      syntaxError(session, args);
      return;
    }
    Kind kind = Args.lower(args[1]).equals("channels") ? Kind.CHANNEL : Kind.SHARD;
    List<byte[]> names = pubSub.activeChannels(kind, args.length == 3 ? args[2] : null);
    Reply reply = session.reply();
    reply.array(names.size());
    for (byte[] name : names) {
      reply.bulk(name);
    }
  }

  /** PUBSUB NUMSUB [channel ...] and PUBSUB SHARDNUMSUB: channel, count, ... (an array). */
  void numsub(Session session, Request request) {
    byte[][] args = request.args();
    Kind kind = Args.lower(args[1]).equals("numsub") ? Kind.CHANNEL : Kind.SHARD;
    Reply reply = session.reply();
    reply.array((args.length - 2) * 2);
    for (int i = 2; i < args.length; i++) {
      reply.bulk(args[i]);
      reply.integer(pubSub.subscriberCount(kind, args[i]));
    }
  }

  /** PUBSUB NUMPAT: the number of patterns subscribed by any connection. */
  void numpat(Session session, Request request) {
    session.reply().integer(pubSub.activeCount(Kind.PATTERN));
  }

  private static CommandSpec.Builder subscribing(String name, CommandSpec.Handler handler) {
    return command(name)
        .flags("pubsub", "noscript", "loading", "stale")
        .categories("pubsub", "slow")
        .group("pubsub")
        .allowedWhileSubscribed()
        .handler(handler);
  }

  private static CommandSpec.Builder pubsubSubcommand(String name, CommandSpec.Handler handler) {
    return command(name)
        .arity(-2)
        .flags("pubsub", "loading", "stale")
        .categories("pubsub", "slow")
        .group("pubsub")
        .handler(handler);
  }

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    PubSubFamily pubsub = new PubSubFamily(parts.context().pubSub());
    return List.of(
        subscribing(
                "subscribe",
                (session, request) -> pubsub.subscribe(session, request.args(), Kind.CHANNEL))
            .arity(-2)
            .summary("Listens for messages published to channels.")
            .since("2.0.0")
            .complexity("O(N) where N is the number of channels to subscribe to.")
            .arguments(arg("channel", STRING).multiple()),
        subscribing(
                "unsubscribe",
                (session, request) -> pubsub.unsubscribe(session, request.args(), Kind.CHANNEL))
            .arity(-1)
            .summary("Stops listening to messages posted to channels.")
            .since("2.0.0")
            .complexity("O(N) where N is the number of channels to unsubscribe.")
            .arguments(arg("channel", STRING).optional().multiple()),
        subscribing(
                "psubscribe",
                (session, request) -> pubsub.subscribe(session, request.args(), Kind.PATTERN))
            .arity(-2)
            .summary("Listens for messages published to channels that match one or more patterns.")
            .since("2.0.0")
            .complexity("O(N) where N is the number of patterns to subscribe to.")
            .arguments(arg("pattern", PATTERN).multiple()),
        subscribing(
                "punsubscribe",
                (session, request) -> pubsub.unsubscribe(session, request.args(), Kind.PATTERN))
            .arity(-1)
            .summary(
                "Stops listening to messages published to channels that match one or more patterns.")
            .since("2.0.0")
            .complexity("O(N) where N is the number of patterns to unsubscribe.")
            .arguments(arg("pattern", PATTERN).optional().multiple()),
        subscribing(
                "ssubscribe",
                (session, request) -> pubsub.subscribe(session, request.args(), Kind.SHARD))
            .arity(-2)
            .keys(KeySpec.range(1, -1, 1, "not_key"))
            .summary("Listens for messages published to shard channels.")
            .since("7.0.0")
            .complexity("O(N) where N is the number of shard channels to subscribe to.")
            .arguments(arg("shardchannel", STRING).multiple()),
        subscribing(
                "sunsubscribe",
                (session, request) -> pubsub.unsubscribe(session, request.args(), Kind.SHARD))
            .arity(-1)
            .keys(KeySpec.range(1, -1, 1, "not_key"))
            .summary("Stops listening to messages posted to shard channels.")
            .since("7.0.0")
            .complexity("O(N) where N is the number of shard channels to unsubscribe.")
            .arguments(arg("shardchannel", STRING).optional().multiple()),
        command("publish")
            .arity(3)
            .flags("pubsub", "loading", "stale", "fast", "may_replicate")
            .categories("pubsub", "fast")
            .summary("Posts a message to a channel.")
            .group("pubsub")
            .since("2.0.0")
            .complexity(
                "O(N+M) where N is the number of clients subscribed to the receiving channel and M"
                    + " is the total number of subscribed patterns (by any client).")
            .arguments(arg("channel", STRING), arg("message", STRING))
            .propagated()
            .handler(pubsub::publish),
        command("spublish")
            .arity(3)
            .flags("pubsub", "loading", "stale", "fast", "may_replicate")
            .categories("pubsub", "fast")
            .keys(KeySpec.one(1, "not_key"))
            .summary("Post a message to a shard channel")
            .group("pubsub")
            .since("7.0.0")
            .complexity(
                "O(N) where N is the number of clients subscribed to the receiving shard channel.")
            .arguments(arg("shardchannel", STRING), arg("message", STRING))
            .propagated()
            .handler(pubsub::spublish),
        command("pubsub")
            .arity(-2)
            .categories("slow")
            .summary("A container for Pub/Sub commands.")
            .group("pubsub")
            .since("2.8.0")
            .complexity("Depends on subcommand.")
            .subcommands(
                pubsubSubcommand("pubsub|channels", pubsub::channels)
                    .summary("Returns the active channels.")
                    .since("2.8.0")
                    .complexity(
                        "O(N) where N is the number of active channels, and assuming constant time"
                            + " pattern matching (relatively short channels and patterns)")
                    .arguments(arg("pattern", PATTERN).optional()),
                pubsubSubcommand("pubsub|numsub", pubsub::numsub)
                    .summary("Returns a count of subscribers to channels.")
                    .since("2.8.0")
                    .complexity(
                        "O(N) for the NUMSUB subcommand, where N is the number of requested"
                            + " channels")
                    .arguments(arg("channel", STRING).optional().multiple()),
                pubsubSubcommand("pubsub|numpat", pubsub::numpat)
                    .arity(2)
                    .summary("Returns a count of unique pattern subscriptions.")
                    .since("2.8.0")
                    .complexity("O(1)"),
                pubsubSubcommand("pubsub|shardchannels", pubsub::channels)
                    .summary("Returns the active shard channels.")
                    .since("7.0.0")
                    .complexity(
                        "O(N) where N is the number of active shard channels, and assuming"
                            + " constant time pattern matching (relatively short shard channels).")
                    .arguments(arg("pattern", PATTERN).optional()),
                pubsubSubcommand("pubsub|shardnumsub", pubsub::numsub)
                    .summary("Returns the count of subscribers of shard channels.")
                    .since("7.0.0")
                    .complexity(
                        "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested"
                            + " shard channels")
                    .arguments(arg("shardchannel", STRING).optional().multiple()),
                HelpCommands.entry("pubsub", "pubsub", "6.2.0", HelpCommands::pubsub)));
  }
}
