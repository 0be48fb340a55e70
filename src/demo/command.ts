// `gatehouse demo`.
import { Command } from 'commander';

export function demoCommand(): Command {
  return new Command('demo').description('(not yet built)').action(async () => {
    throw new Error('not yet built');
  });
}
