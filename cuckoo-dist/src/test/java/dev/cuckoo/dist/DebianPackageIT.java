package dev.cuckoo.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * The Debian package: its files, links, conffiles and dependencies (dpkg-deb), lintian's verdict,
 * and, as root where dpkg installs packages (the CI machine), a real installation: the system user,
 * the service's command line run as that user with its data in /var/lib/cuckoo, then removal (keeps
 * the data) and purge (deletes it). Each part is skipped, with the reason, where its tools are
 * missing.
 */
class DebianPackageIT {
  private static final String PACKAGE = "cuckoo";
  private static final String UNIT = "/lib/systemd/system/cuckoo-server.service";
  private static final Path DATA = Paths.get("/var/lib/cuckoo");
  private static final Path CONF = Paths.get("/etc/cuckoo/cuckoo-server.conf");
  private static final String JAVA_DEPENDENCY =
      "default-jre-headless (>= 2:1.17) | java17-runtime-headless";

  @TempDir Path work;

  @Test
  void deb_contents_filesLinksConffilesAndDependencies() throws Exception {
    assumeTrue(Dist.whereIs("dpkg-deb") != null, "dpkg-deb is not installed");
    String deb = Dist.deb().toString();
    Dist.Result fields =
        run("dpkg-deb", "--field", deb, "Package", "Version", "Architecture", "Depends");
    assertEquals(
        "Package: cuckoo\nVersion: "
            + Dist.VERSION.replace("-SNAPSHOT", "~snapshot")
            + "\nArchitecture: all\nDepends: "
            + JAVA_DEPENDENCY
            + ", adduser\n",
        fields.output());
    assertEquals(
        "/etc/cuckoo/cuckoo-server.conf\n/etc/cuckoo/jvm.options\n",
        run("dpkg-deb", "--info", deb, "conffiles").output());

    Map<String, String> entries = new TreeMap<>();
    List<String> jars = new ArrayList<>();
    for (String line : run("dpkg-deb", "--contents", deb).output().split("\n")) {
      // drwxr-xr-x root/root 0 2026-01-01 00:00 ./usr/bin/ [-> target]
      String[] fields6 = line.split("\\s+", 6);
      assertEquals("root/root", fields6[1], line);
      String path = fields6[5].substring(1);
      if (path.startsWith("/usr/share/cuckoo/lib/") && path.endsWith(".jar")) {
        jars.add(path.substring("/usr/share/cuckoo/lib/".length()));
        assertEquals("-rw-r--r--", fields6[0], line);
      } else if (!path.endsWith("/")) {
        entries.put(path, fields6[0].charAt(0) == 'l' ? "link" : fields6[0]);
      }
    }
    Map<String, String> expected = new TreeMap<>();
    expected.put("/usr/share/cuckoo/bin/cuckoo", "-rwxr-xr-x");
    expected.put("/usr/share/cuckoo/bin/cuckoo-server", "-rwxr-xr-x");
    expected.put("/usr/share/cuckoo/conf -> /etc/cuckoo", "link");
    expected.put("/usr/bin/cuckoo -> ../share/cuckoo/bin/cuckoo", "link");
    expected.put("/usr/bin/cuckoo-server -> ../share/cuckoo/bin/cuckoo-server", "link");
    expected.put("/etc/cuckoo/cuckoo-server.conf", "-rw-r--r--");
    expected.put("/etc/cuckoo/jvm.options", "-rw-r--r--");
    expected.put(UNIT, "-rw-r--r--");
    expected.put("/usr/share/doc/cuckoo/copyright", "-rw-r--r--");
    expected.put("/usr/share/doc/cuckoo/changelog.gz", "-rw-r--r--");
    expected.put("/usr/share/doc/cuckoo/README", "-rw-r--r--");
    assertEquals(expected, entries);

    TreeSet<String> archiveJars = new TreeSet<>();
    for (String name : run("tar", "-tzf", Dist.archive().toString()).output().split("\n")) {
      if (name.startsWith(Dist.NAME + "/lib/") && name.endsWith(".jar")) {
        archiveJars.add(name.substring(Dist.NAME.length() + 5));
      }
    }
    assertEquals(archiveJars, new TreeSet<>(jars));

    Dist.Result packagedConfig =
        run(
            "sh",
            "-c",
            "dpkg-deb --fsys-tarfile \"$0\" | tar -xOf - ./etc/cuckoo/cuckoo-server.conf",
            deb);
    assertEquals(Files.readString(Dist.packagedConfig()), packagedConfig.output());
    String unit =
        run("sh", "-c", "dpkg-deb --fsys-tarfile \"$0\" | tar -xOf - ." + UNIT, deb).output();
    for (String line :
        List.of(
            "ExecStart=/usr/bin/cuckoo-server /etc/cuckoo/cuckoo-server.conf",
            "User=cuckoo",
            "Restart=on-failure",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ReadWritePaths=/var/lib/cuckoo",
            "PrivateTmp=yes",
            "WantedBy=multi-user.target")) {
      assertTrue(unit.lines().anyMatch(line::equals), line + " in\n" + unit);
    }
    assertTrue(unit.lines().anyMatch(line -> line.startsWith("LimitNOFILE=")), unit);
  }

  @Test
  void deb_lintian_reportsNoErrors() throws Exception {
    assumeTrue(
        Dist.whereIs("lintian") != null, "lintian is not installed (apt-get install lintian)");
    Dist.Result lintian = Dist.run(work, Map.of(), "lintian", Dist.deb().toString());
    System.out.println("lintian " + Dist.deb().getFileName() + ":\n" + lintian.output());
    assertFalse(
        lintian.output().lines().anyMatch(line -> line.startsWith("E: ")), lintian.output());
    assertEquals(0, lintian.exitCode(), lintian.toString());
  }

  @Test
  void deb_installed_userServiceAndDataThenRemoveKeepsDataAndPurgeDeletesIt() throws Exception {
    assumeTrue(Dist.whereIs("dpkg") != null, "dpkg is not installed");
    assumeTrue("0".equals(run("id", "-u").output().trim()), "not root: dpkg -i needs root");
    assumeTrue(Dist.whereIs("setpriv") != null, "setpriv (util-linux) is not installed");
    assumeTrue(
        Dist.whereIs("adduser") != null, "adduser, which the package depends on, is not installed");
    // one installation at a time on this machine, whatever builds run
    Path lockFile = Paths.get(System.getProperty("java.io.tmpdir"), "cuckoo-deb-install.lock");
    try (FileChannel channel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = channel.lock()) {
      assertTrue(lock.isValid());
      assumeTrue(
          Dist.run(work, Map.of(), "dpkg-query", "--status", PACKAGE).exitCode() != 0,
          "a cuckoo package is installed already: it is left alone");
      assumeTrue(!Files.exists(DATA), DATA + " exists already: it is left alone");
      boolean userExisted = Dist.run(work, Map.of(), "getent", "passwd", "cuckoo").exitCode() == 0;
      try {
        installAndCheck();
      } finally {
        Dist.run(work, Map.of(), "dpkg", "--purge", PACKAGE);
        if (!userExisted) {
          Dist.run(work, Map.of(), "userdel", "cuckoo");
          Dist.run(work, Map.of(), "groupdel", "cuckoo");
        }
      }
    }
  }

  private void installAndCheck() throws Exception {
    List<String> install = new ArrayList<>(List.of("dpkg", "--install"));
    if (!javaRuntimePackageInstalled()) {
      // The Java runtime running these tests is not a Debian package (e.g. a JDK unpacked in
      // /opt), so dpkg would refuse the Depends on one; the service is run with that JDK below.
      // Only the Java dependency is ignored: adduser is still required.
      install.add("--ignore-depends=default-jre-headless,java17-runtime-headless");
      System.out.println("no Debian Java runtime package: installing with " + install.get(2));
    }
    install.add(Dist.deb().toString());
    Dist.Result installed = run(install.toArray(new String[0]));
    // adduser warns when the home directory it is given does not exist yet
    assertFalse(installed.output().contains("can't be accessed"), installed.output());

    String user = run("getent", "passwd", "cuckoo").output().trim();
    String[] account = user.split(":");
    assertEquals("/var/lib/cuckoo", account[5], user);
    assertTrue(account[6].endsWith("nologin") || account[6].endsWith("false"), user);
    assertEquals("cuckoo", Files.getOwner(DATA).getName());
    assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(DATA)));
    assertTrue(
        run("/usr/bin/cuckoo", "--version").output().startsWith("cuckoo " + Dist.VERSION + "\n"));
    assertEquals(
        Paths.get("/etc/cuckoo/jvm.options"),
        Paths.get("/usr/share/cuckoo/conf/jvm.options").toRealPath());
    if (Dist.whereIs("systemd-analyze") != null) {
      Dist.Result verify = Dist.run(work, Map.of(), "systemd-analyze", "verify", UNIT);
      assertEquals(0, verify.exitCode(), verify.toString());
    }

    // the unit's command line, as its user, in its working directory (there is no systemd here)
    Map<String, String> unit = unitSettings();
    assertEquals("cuckoo", unit.get("User"));
    List<String> command =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + unit.get("User"),
                "--regid=" + unit.get("Group"),
                "--init-groups",
                "--"));
    command.addAll(Arrays.asList(unit.get("ExecStart").split(" ")));
    command.addAll(List.of("--port", Integer.toString(Dist.freePort())));
    Map<String, String> environment =
        Map.of("JAVA_HOME", System.getProperty("java.home"), "CUCKOO_JAVA_OPTS", "-Xmx256m");
    long stopMillis;
    try (ServerProcess server =
        ServerProcess.start(
            Paths.get(unit.get("WorkingDirectory")),
            environment,
            work.resolve("service.out"),
            command)) {
      int port = server.awaitPort();
      try (RedisClient redis = RedisClient.create("redis://127.0.0.1:" + port)) {
        assertEquals("PONG", redis.ping());
        assertTrue(redis.cfAdd("installed", "item"));
        assertTrue(redis.cfExists("installed", "item"));
        // Redis Sentinel sends CONFIG REWRITE after each failover: the service's user may replace
        // its configuration file (the directory and the file are its own, as with Debian's redis)
        assertEquals("OK", redis.configSet(Map.of("timeout", "7")));
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
          assertEquals("OK", jedis.configRewrite());
        }
      }
      assertTrue(Files.readAllLines(CONF).contains("timeout 7"), CONF + " was not rewritten");
      assertEquals("cuckoo", Files.getOwner(CONF).getName());
      assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(CONF)));
      stopMillis = server.terminate();
      assertEquals(0, server.exitCode(), server.output());
      assertTrue(server.output().contains("data in /var/lib/cuckoo"), server.output());
    }
    System.out.println("the installed service: SIGTERM to exit " + stopMillis + " ms");
    for (String file : List.of("appendonly.log", "dump.cuckoo")) {
      assertEquals("cuckoo", Files.getOwner(DATA.resolve(file)).getName(), file);
    }

    Dist.Result remove = run("dpkg", "--remove", PACKAGE);
    assertTrue(remove.output().contains("kept the data in /var/lib/cuckoo"), remove.output());
    assertTrue(remove.output().contains("'sudo apt purge cuckoo' deletes them"), remove.output());
    assertTrue(Files.exists(DATA.resolve("appendonly.log")));
    assertTrue(Files.exists(Paths.get("/etc/cuckoo/cuckoo-server.conf")));
    assertFalse(Files.exists(Paths.get("/usr/bin/cuckoo-server"), LinkOption.NOFOLLOW_LINKS));

    Dist.Result purge = run("dpkg", "--purge", PACKAGE);
    assertTrue(
        purge.output().contains("deleting the server's data: /var/lib/cuckoo"), purge.output());
    assertFalse(Files.exists(DATA));
    assertFalse(Files.exists(Paths.get("/etc/cuckoo")));
    System.out.println("dpkg --remove:\n" + remove.output() + "dpkg --purge:\n" + purge.output());
  }

  /** True if an installed package is default-jre-headless or provides java17-runtime-headless. */
  private boolean javaRuntimePackageInstalled() throws IOException, InterruptedException {
    String packages =
        run("dpkg-query", "-W", "-f=${db:Status-Abbrev}|${Package}|${Provides}\n").output();
    for (String line : packages.split("\n")) {
      String[] fields = line.split("\\|", 3);
      if (fields.length == 3 && fields[0].startsWith("ii")) {
        if (fields[1].equals("default-jre-headless")) {
          return true;
        }
        for (String provided : fields[2].split(",")) {
          if (provided.trim().split(" ")[0].equals("java17-runtime-headless")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The [Service] settings of the installed unit, by name. */
  private static Map<String, String> unitSettings() throws IOException {
    Map<String, String> settings = new TreeMap<>();
    for (String line : Files.readAllLines(Paths.get(UNIT), StandardCharsets.UTF_8)) {
      int equals = line.indexOf('=');
      if (!line.startsWith("#") && equals > 0) {
        settings.put(line.substring(0, equals), line.substring(equals + 1));
      }
    }
    return settings;
  }

  /** Runs a command in the test's directory; fails unless it exits with 0. */
  private Dist.Result run(String... command) throws IOException, InterruptedException {
    Dist.Result result = Dist.run(work, Map.of(), command);
    assertEquals(0, result.exitCode(), result.toString());
    return result;
  }
}
