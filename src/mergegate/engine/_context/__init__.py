"""What every room of the engine shares: the live context of the run this process executes
(`runtime`), its agents and budgets (`run_agents`), its live events (`run_events`) and typed
journal (`journal`), the values its workflows return (`outcomes`), the plan views the engine
reads (`plan_views`) and the processes it started (`orphans`). Imports no other room."""
