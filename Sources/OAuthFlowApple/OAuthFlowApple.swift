import OAuthFlow

/// OAuthFlow on Apple platforms: what an app needs beside the engine (Docs/apple.md).
///
/// Everything here that is not an Apple call is compiled and tested on Linux; the calls into
/// AuthenticationServices, Security and CryptoKit sit behind `#if canImport(…)` in thin files, type-checked on Linux
/// against shims of Apple's documented signatures (scripts/apple-typecheck.sh) and run only on an Apple platform.
public enum OAuthFlowApple {}
