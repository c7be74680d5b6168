package dev.cuckoo.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoo.server.RespClient.Err;
import dev.cuckoo.server.RespClient.Simple;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MODULE as Redis with RedisBloom loaded answers it (module.c moduleCommand,
 * addReplyLoadedModules), and HELLO's role and modules fields.
 */
class ModuleCommandsTest {
  private static final Err NOT_ALLOWED =
      new Err(
          "ERR MODULE command not allowed. If the enable-module-command option is set to"
              + " \"local\", you can run it from a local connection, otherwise you need to set this"
              + " option in the configuration file, and then restart the server.");

  @Test
  void moduleList_namesRedisBloomAsHelloDoes() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      List<?> modules = (List<?>) client.call("MODULE", "LIST");
      assertEquals(1, modules.size());
      List<?> bf = (List<?>) modules.get(0);
      assertEquals("name", RespClient.text(bf.get(0)));
      assertEquals("bf", RespClient.text(bf.get(1)));
      assertEquals("ver", RespClient.text(bf.get(2)));
      assertEquals(80200L, bf.get(3));
      assertEquals(List.of(), bf.get(7));
      Map<?, ?> hello = (Map<?, ?>) client.call("HELLO", "3");
      assertEquals("master", hello.get("role") instanceof byte[] b ? new String(b) : null);
      Map<?, ?> helloModule = (Map<?, ?>) ((List<?>) hello.get("modules")).get(0);
      Map<?, ?> listed = (Map<?, ?>) ((List<?>) client.call("MODULE", "LIST")).get(0);
      assertEquals(RespClient.text(helloModule.get("name")), RespClient.text(listed.get("name")));
      assertEquals(helloModule.get("ver"), listed.get("ver"));
    }
  }

  @Test
  void moduleLoadAndUnload_refusedAsWithEnableModuleCommandNo() throws IOException {
    try (CuckooServer server = TestServers.start();
        RespClient client = new RespClient(server.port())) {
      assertEquals(NOT_ALLOWED, client.call("MODULE", "LOAD", "/usr/lib/redis/modules/x.so"));
      assertEquals(NOT_ALLOWED, client.call("MODULE", "LOADEX", "x.so", "ARGS", "a"));
      assertEquals(NOT_ALLOWED, client.call("MODULE", "UNLOAD", "bf"));
      assertEquals(
          new Err("ERR wrong number of arguments for 'module|list' command"),
          client.call("MODULE", "LIST", "x"));
      List<?> help = (List<?>) client.call("MODULE", "HELP");
      assertEquals(
          new Simple("MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
          help.get(0));
      assertEquals(11, help.size());
      assertEquals(1L, ((List<?>) client.call("MODULE", "LIST")).size());
    }
  }

  @Test
  void hello_onAReplica_namesTheRoleReplica() throws IOException {
    try (CuckooServer master = TestServers.start();
        CuckooServer replica =
            CuckooServer.start(
                TestServers.memoryOnly().set("replicaof", "127.0.0.1 " + master.port()).build());
        RespClient client = new RespClient(replica.port())) {
      List<?> hello = (List<?>) client.call("HELLO", "2");
      assertEquals("role", RespClient.text(hello.get(10)));
      assertEquals("replica", RespClient.text(hello.get(11)));
    }
  }
}
