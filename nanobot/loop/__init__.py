"""The agent and its turn loop: the Agent, the core prompt sections, reply checks, the call policy, calls
written as text, the loop guard and turn timing."""
