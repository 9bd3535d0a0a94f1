// OAuthFlowMCPHummingbird is built only with the package traits MCP and Hummingbird (Package.swift): without, it says so in one sentence.
#if !(MCP && Hummingbird)
#error("OAuthFlowMCPHummingbird needs the package traits MCP and Hummingbird: .package(…, traits: [\"MCP\", \"Hummingbird\"]), or tick them in Xcode")
#endif
