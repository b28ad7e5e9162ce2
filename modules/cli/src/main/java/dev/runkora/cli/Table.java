package dev.runkora.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** A plain text table with left-aligned columns separated by two spaces. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  Table row(Object... cells) {
    String[] r = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      r[i] = String.valueOf(cells[i]);
    }
    rows.add(r);
    return this;
  }

  void print(PrintStream out) {
    int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(r[i]);
        if (i < r.length - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
