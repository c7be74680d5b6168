package dev.cuckoo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkout's {@code ./cuckoo} script on its first run, with stand-ins for Maven and Java on the
 * PATH: it says what it builds and how long that takes, shows each module as Maven reaches it, and
 * shows Maven's output when the build fails.
 */
class RootLauncherTest {
  @TempDir Path root;

  /** What the script did. */
  private record Ran(int exitCode, String out, String err) {}

  private Path install(String mvnBody) throws IOException {
    Path script = Paths.get("..", "cuckoo").toAbsolutePath().normalize();
    assumeTrue(Files.isRegularFile(script), "not run from a checkout: " + script);
    Files.copy(script, root.resolve("cuckoo"));
    Path bin = Files.createDirectories(root.resolve("fake-bin"));
    executable(bin.resolve("mvn"), mvnBody);
    executable(bin.resolve("java"), "#!/bin/sh\necho \"java $*\"\n");
    executable(root.resolve("cuckoo"), Files.readString(root.resolve("cuckoo")));
    return bin;
  }

  private static void executable(Path path, String text) throws IOException {
    Files.writeString(path, text, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Ran runScript(Path bin, String... args) throws Exception {
    java.util.List<String> command = new java.util.ArrayList<>();
    command.add(root.resolve("cuckoo").toString());
    command.addAll(java.util.List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
    builder.environment().put("PATH", bin + ":/usr/bin:/bin");
    Path out = root.resolve("out.txt");
    Path err = root.resolve("err.txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the script did not end");
    return new Ran(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void firstRun_saysWhatItBuildsAndShowsEachModule() throws Exception {
    Path bin =
        install(
            "#!/bin/sh\n"
                + "echo '[INFO] Building cuckoo core 0.1.0-SNAPSHOT                [2/4]'\n"
                + "echo '[INFO] some detail nobody needs'\n"
                + "mkdir -p cuckoo-cli/target && : > cuckoo-cli/target/cuckoo.jar\n");
    Ran run = runScript(bin, "--version");
    assertEquals(0, run.exitCode(), run.toString());
    assertTrue(run.err().contains("first run only; about 30-60 s"), run.err());
    assertTrue(
        run.err().contains("cuckoo:   building cuckoo core 0.1.0-SNAPSHOT [2/4]"), run.err());
    assertTrue(!run.err().contains("some detail"), run.err());
    assertTrue(run.err().contains("cuckoo: built in "), run.err());
    assertTrue(
        run.out().contains("-jar " + root.resolve("cuckoo-cli/target/cuckoo.jar")), run.out());
  }

  @Test
  void failedBuild_showsMavensOutputAndExits1() throws Exception {
    Path bin = install("#!/bin/sh\necho '[ERROR] COMPILATION ERROR'\nexit 3\n");
    Ran run = runScript(bin, "--version");
    assertEquals(1, run.exitCode(), run.toString());
    assertTrue(run.err().contains("[ERROR] COMPILATION ERROR"), run.err());
    assertTrue(run.err().contains("cuckoo: the build failed"), run.err());
    assertEquals("", run.out());
  }
}
