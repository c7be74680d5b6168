package dev.cuckoo.server.command;

import java.util.ArrayList;
import java.util.List;

/**
 * The registered command families, in table order (COMMAND and COMMAND LIST list them so): the one
 * place a family is registered.
 */
final class Families {
  /** Every family, in table order. */
  private static final List<Family> ALL =
      List.of(
          CfFamily::entries,
          ConnectionFamily::entries,
          ServerFamily::entries,
          AclFamily::entries,
          KeysFamily::entries,
          TransactionFamily::entries,
          PubSubFamily::entries,
          ScriptFamily::entries,
          FunctionFamily::entries,
          ReplicationFamily::entries,
          ClusterFamily::entries);

  private Families() {}

  /**
   * What a family builds its handlers from.
   *
   * @param context the shared server state
   * @param writes the write path
   * @param commands the dispatcher, for the handlers that run or describe other commands
   * @param expiryCycle the active expiry cycle (DEBUG runs it)
   */
  record Parts(
      ServerContext context, WritePath writes, Commands commands, ExpiryCycle expiryCycle) {}

  /** Returns every family's entries, family by family in table order, bound to their handlers. */
  static List<List<CommandSpec.Builder>> entries(Parts parts) {
    List<List<CommandSpec.Builder>> entries = new ArrayList<>(ALL.size());
    for (Family family : ALL) {
      entries.add(family.entries(parts));
    }
    return entries;
  }
}
