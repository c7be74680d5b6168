package dev.cuckoo.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.TestServers;
import dev.cuckoo.server.keyspace.Keyspace;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The registered families make the table: each command is declared by one family only, and the
 * table lists the commands family by family in registration order (COMMAND and COMMAND LIST answer
 * in that order).
 */
class FamiliesTest {
  private final ServerContext context =
      new ServerContext(TestServers.memoryOnly().build().parameters(), new Keyspace());
  private final Commands commands = new Commands(context);

  private List<String> declaredNames() {
    Families.Parts parts =
        new Families.Parts(
            context,
            commands.writePath(),
            commands,
            new ExpiryCycle(context, commands.writePath()));
    List<String> names = new ArrayList<>();
    for (List<CommandSpec.Builder> family : Families.entries(parts)) {
      for (CommandSpec.Builder builder : family) {
        names.add(builder.build().name());
      }
    }
    return names;
  }

  @Test
  void entries_everyFamily_eachCommandDeclaredOnce() {
    List<String> declared = declaredNames();
    Set<String> seen = new HashSet<>();
    List<String> twice = new ArrayList<>();
    for (String name : declared) {
      if (!seen.add(name)) {
        twice.add(name);
      }
    }
    assertEquals(List.of(), twice, "declared by more than one entry");
  }

  @Test
  void table_listsCommandsFamilyByFamily_inRegistrationOrder() {
    List<String> table = new ArrayList<>();
    for (CommandSpec spec : commands.all()) {
      table.add(spec.name());
    }
    assertEquals(declaredNames(), table);
    assertEquals("cf.reserve", table.get(0));
    assertEquals("cluster", table.get(table.size() - 1));
  }
}
