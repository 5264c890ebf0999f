"""The agent and its turn loop: the Agent, the turn under the reply checks (claims, looks), the model's
judgements, the call policy and the turn's budget; calls the user spelled out or a reply wrote instead
of making them; the reply's stream and the turn's report."""
