package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.PATTERN;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.CommandSpec.command;

import dev.cuckoo.server.pubsub.Kind;
import java.util.List;

/**
 * The pub/sub commands: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH and PUBSUB. Flags,
 * categories and key specs as Redis 8 reports them; docs from Redis's command JSON.
 */
final class PubSubFamily {
  private PubSubFamily() {}

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
    PubSubCommands pubsub = new PubSubCommands(parts.context().pubSub(), parts.context());
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
