package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.CommandSpec.command;

import java.util.List;

/**
 * The transaction commands: MULTI, EXEC, DISCARD, WATCH and UNWATCH. Flags, categories and key
 * specs as Redis 8 reports them; docs from Redis's command JSON.
 */
final class TransactionFamily {
  private TransactionFamily() {}

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    TransactionCommands tx = new TransactionCommands(parts.commands(), parts.context());
    return List.of(
        command("multi")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .runsInsideMulti()
            .summary("Starts a transaction.")
            .group("transactions")
            .since("1.2.0")
            .complexity("O(1)")
            .handler(tx::multi),
        command("exec")
            .arity(1)
            .flags("noscript", "loading", "stale", "skip_slowlog")
            .categories("slow", "transaction")
            .runsInsideMulti()
            .writes(Writes.TRANSACTION)
            .summary("Executes all commands in a transaction.")
            .group("transactions")
            .since("1.2.0")
            .complexity("Depends on commands in the transaction")
            .handler(tx::exec),
        command("discard")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .runsInsideMulti()
            .summary("Discards a transaction.")
            .group("transactions")
            .since("2.0.0")
            .complexity("O(N), when N is the number of queued commands")
            .handler(tx::discard),
        command("watch")
            .arity(-2)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .keys(KeySpec.range(1, -1, 1, "RO"))
            .runsInsideMulti()
            .summary("Monitors changes to keys to determine the execution of a transaction.")
            .group("transactions")
            .since("2.2.0")
            .complexity("O(1) for every key.")
            .arguments(key("key", 0).multiple())
            .handler(tx::watch),
        command("unwatch")
            .arity(1)
            .flags("noscript", "loading", "stale", "fast", "allow_busy")
            .categories("fast", "transaction")
            .summary("Forgets about watched keys of a transaction.")
            .group("transactions")
            .since("2.2.0")
            .complexity("O(1)")
            .handler(tx::unwatch));
  }
}
