package runner

// SecretEnv is what the runner adds to the environment of the
// implementation under test, for the run_command environment cases
// (CFG-ENV-01, NFR-SEC-04): variables whose names match the SRD's default
// denylist (so a command must not see them), one that only a configured
// pattern removes, and one no pattern matches (so a command must see it:
// the environment is inherited). A binary gets them in its process
// environment; the in-process reference gets them through
// reference.Options.Environ (impl/inproc). Their values are distinct
// canaries a case can look for in a command's output.
func SecretEnv() []string {
	return []string{
		"FCP_CANARY_API_KEY=fcp-canary-key-7d1e",       // *_KEY
		"FCP_CANARY_TOKEN=fcp-canary-token-52aa",       // *_TOKEN
		"FCP_CANARY_SECRET=fcp-canary-secret-c0de",     // *_SECRET
		"FCP_CANARY_PASSWORD=fcp-canary-password-9f00", // *_PASSWORD
		"AWS_FCP_CANARY=fcp-canary-aws-31b7",           // AWS_*
		"ANTHROPIC_FCP_CANARY=fcp-canary-anthropic-4c", // ANTHROPIC_*
		"OPENAI_FCP_CANARY=fcp-canary-openai-8e",       // OPENAI_*
		"FCP_CANARY_CUSTOM=fcp-canary-custom-61",       // only a configured pattern
		"FCP_CANARY_VISIBLE=fcp-canary-visible-0k",     // no pattern
	}
}
