import Foundation

/// XDG base directories (freedesktop.org Base Directory Specification).
public enum XDGDirectory {
    /// `$XDG_CONFIG_HOME`, or `~/.config` when it is unset, empty or relative.
    public static func config(environment: [String: String]) -> URL {
        base("XDG_CONFIG_HOME", fallback: ".config", environment: environment)
    }

    /// `$XDG_STATE_HOME`, or `~/.local/state` when it is unset, empty or relative.
    public static func state(environment: [String: String]) -> URL {
        base("XDG_STATE_HOME", fallback: ".local/state", environment: environment)
    }

    private static func base(_ variable: String, fallback: String, environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(fallback, isDirectory: true)
    }
}
