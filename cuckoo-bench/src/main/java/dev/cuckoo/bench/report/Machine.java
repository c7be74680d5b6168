package dev.cuckoo.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Describes the machine and JVM the benchmarks ran on, for the report. */
final class Machine {
  private Machine() {}

  /** Returns Markdown list lines: processors, CPU model, memory, JVM, flags, huge pages. */
  static List<String> describe() {
    return List.of(
        "- processors (`nproc`): " + Runtime.getRuntime().availableProcessors(),
        "- CPU: " + firstValue(Path.of("/proc/cpuinfo"), "model name"),
        "- memory: " + firstValue(Path.of("/proc/meminfo"), "MemTotal"),
        "- JVM: "
            + System.getProperty("java.vm.name")
            + " "
            + System.getProperty("java.vm.version")
            + " ("
            + System.getProperty("java.vendor")
            + ")",
        "- JVM flags of every benchmark fork: `" + String.join(" ", Suite.JVM_FLAGS) + "`",
        "- transparent huge pages (`/sys/kernel/mm/transparent_hugepage/enabled`): "
            + firstLine(Path.of("/sys/kernel/mm/transparent_hugepage/enabled")),
        "- OS: "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
  }

  private static String firstValue(Path file, String key) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
    return "unknown";
  }

  private static String firstLine(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return lines.isEmpty() ? "unknown" : lines.get(0);
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
