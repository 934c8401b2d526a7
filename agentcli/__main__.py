from agentcli.cli import main

raise SystemExit(main())
