#if CLI
/// A command that cannot do its work for a reason that is not a wrong command line (exit 1, one sentence).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
