package main

import "github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"

func tokenFigures(tools []corpus.Tool, reqs []corpus.Request) {}
