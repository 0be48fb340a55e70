// TypeBox schemas of the command queue's PMS routes (/facilities/{facilityId}/commands): a command
// as the PMS sees it (gate codes left out), the list's query, with the tags the routes share.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { COMMAND_STATUSES, COMMAND_TYPES } from './rules.ts';

export const COMMAND_TAGS = ['access control: commands'];

const facilityId = EntityId('The facility id.');
export const FacilityParams = Type.Object({ facilityId });
export const CommandParams = Type.Object({
  facilityId,
  commandId: Type.String({ description: 'The command id (UUID).' }),
});

export const Command = Type.Object(
  {
    id: Type.String(),
    sequence: Type.Integer({ description: 'Increases by one with each command of the facility.' }),
    type: StringEnum(COMMAND_TYPES),
    payload: Type.Unknown({ description: 'What the controller applies. Gate codes are left out of this view.' }),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    status: StringEnum(COMMAND_STATUSES),
    deliveredAt: Nullable(Type.String({ format: 'date-time' })),
    acknowledgedAt: Nullable(Type.String({ format: 'date-time', description: 'When the controller applied it.' })),
    failedAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When the controller acknowledged it as failed (status failed).',
      }),
    ),
    failureReason: Nullable(
      Type.String({ description: 'Why it failed, in the controller’s words (null: not failed, or no reason given).' }),
    ),
  },
  { $id: 'Command' },
);

export const CommandsQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({ minimum: 0, default: 0, description: 'Only commands with a greater sequence (0: from the first).' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: '1–1,000, default 100.' })),
  status: Type.Optional(StringEnum(COMMAND_STATUSES)),
});
