package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** SCRIPT as Redis answers it with an empty script cache and no script running. */
@ExtendWith(LeakCheck.class)
class ScriptCommandsTest {
  @Test
  void script_withoutScripting_answersAsAnIdleRedisWithAnEmptyCache() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(
          new Err("NOTBUSY No scripts in execution right now."), client.call("SCRIPT", "KILL"));
      assertEquals(new Simple("OK"), client.call("SCRIPT", "FLUSH"));
      assertEquals(new Simple("OK"), client.call("SCRIPT", "flush", "async"));
      assertEquals(
          new Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"),
          client.call("SCRIPT", "FLUSH", "LATER"));
      assertEquals(
          List.of(0L, 0L),
          client.call(
              "SCRIPT",
              "EXISTS",
              "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
              "a42059b356c875f0717db19a51f6aaca9ae659ea"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'script|exists' command"),
          client.call("SCRIPT", "EXISTS"));
      // a sha1 for a script that can never run would be a lie: LOAD stays unknown
      assertEquals(
          new Err("ERR unknown subcommand 'LOAD'. Try SCRIPT HELP."),
          client.call("SCRIPT", "LOAD", "return 1"));
      List<?> help = (List<?>) client.call("SCRIPT", "HELP");
      assertEquals(
          new Simple("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
          help.get(0));
      assertEquals(17, help.size());
    }
  }
}
